"""Review as data: the lockfile of what the model sees, the breaking-change check
(`toolgen diff`) and the review page (`toolgen docs`), all built on catalogue snapshots
(`toolgen.spec.snapshot`), never on the IR's classes, so they outlive its redesigns."""
