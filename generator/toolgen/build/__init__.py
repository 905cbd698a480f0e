"""The build of a catalogue: `pipeline` runs the stages over it (each tool file's unit is
`tool_files`'), `cache` keeps the units and the stamp of the last build, `project`, `layout` and
`manifest` say where a build writes and which files are its own, and the write itself is
`write` (the plan, the staging and the atomic switch), `recovery` (the journal, the clean-up
after an interrupted build, the lock) and `disk` (every operation a build makes on the disk).
`progress` times the stages for `build --verbose`."""
