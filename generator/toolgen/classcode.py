"""The code of toolgen's dataclass methods, compiled once, as Python keeps a module's bytecode.

Python's `dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`, `__hash__` and,
for a frozen class, `__setattr__` and `__delattr__` as source text and compiles it, every time
the class is made: on Python 3.11, 0.7 ms a class. A build imports about 70 of toolgen's,
50 ms of the 150 ms its imports cost, on every command. The text is the same from run to run
(it is made of the class's field names and options), so, as the interpreter does for a
module's source, the code it compiles to is kept: in `__pycache__/` beside this file, one
marshal file per interpreter (its cache tag), read by the first import of toolgen.

`install` puts a stand-in for `exec` in the namespace of the `dataclasses` module, the only
name that module runs the text with. For text compiled for one of toolgen's modules (the
namespace it runs in is theirs) the stand-in takes the kept code, or compiles the text as
`exec` would and keeps the code; any other call is `exec` itself, so other code's dataclasses
are made exactly as before. The code is what compiling the same text gives: the same
statements, the same file name (`<string>`), no future features inherited (the text is run
from `dataclasses`, which imports none). A kept file that cannot be read, is of another
interpreter or holds other text costs the compile and nothing else.

The file is written as bytecode is: when the interpreter writes bytecode
(`sys.dont_write_bytecode` is false, as PYTHONDONTWRITEBYTECODE sets it) and a run compiled
anything new (`save`, at the end of a command), or always by `main`, which imports all of
toolgen and writes the file (as `compileall` writes bytecode: `make setup` and the benchmark
run it). Losing it costs one run the compiles.
"""

# no `from __future__ import annotations` here: `exec` inherits the future features of the
# code that calls it, and other code's dataclass methods are run by `exec` from this module
import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from types import CodeType
from typing import Any

PACKAGE = "toolgen"
# the interpreter's bytecode magic: code objects of another one are not kept
_MAGIC = importlib.util.MAGIC_NUMBER
_FOLDER = Path(__file__).resolve().parent / "__pycache__"
PATH = _FOLDER / f"classcode.{sys.implementation.cache_tag}.marshal"

_kept: dict[str, CodeType] = {}
_made: dict[str, CodeType] = {}  # compiled by this run, not in the file
_used: set[str] = set()  # the text of every method made by this run


def _load() -> dict[str, CodeType]:
    try:
        with open(PATH, "rb") as file:
            data = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not (isinstance(data, tuple) and len(data) == 2 and data[0] == _MAGIC):
        return {}
    codes = data[1]
    if not isinstance(codes, dict):
        return {}
    return {
        text: code
        for text, code in codes.items()
        if isinstance(text, str) and isinstance(code, CodeType)
    }


def _exec(
    source: Any, globals: dict[str, Any] | None = None, locals: Any = None, /
) -> None:
    """`exec`, with the code of toolgen's dataclass methods kept (see the module)."""
    if not (
        type(source) is str
        and type(globals) is dict
        and str(globals.get("__name__", "")).startswith(f"{PACKAGE}.")
    ):
        builtins.exec(source, globals, locals)
        return
    _used.add(source)
    code = _kept.get(source)
    if code is None:
        code = _made.get(source)
    if code is None:
        code = _made[source] = compile(source, "<string>", "exec", dont_inherit=True)
    builtins.exec(code, globals, locals)


def install() -> None:
    """Keep the code of the dataclass methods of toolgen's modules made from here on."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _kept.update(_load())
    dataclasses.exec = _exec  # type: ignore[attr-defined]


def save(*, always: bool = False, only_used: bool = False) -> bool:
    """Write the kept code with what this run compiled, when it compiled anything and the
    interpreter writes bytecode (or `always`); with `only_used`, only the code of the methods
    this run made (a run that made every class leaves out what no class is made of any more).
    False when it could not be written."""
    if not (_made or only_used) or (sys.dont_write_bytecode and not always):
        return True
    codes = {**_kept, **_made}
    if only_used:
        codes = {text: code for text, code in codes.items() if text in _used}
    temp = PATH.with_name(f"{PATH.name}.{os.getpid()}.tmp")
    try:
        _FOLDER.mkdir(exist_ok=True)
        with open(temp, "xb") as file:
            file.write(marshal.dumps((_MAGIC, codes)))
        os.replace(temp, PATH)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        return False
    _kept.clear()
    _kept.update(codes)
    _made.clear()
    return True


def _import_all() -> int:
    """Import every module of toolgen, so that the code of all its dataclasses is kept."""
    import pkgutil

    package = sys.modules[PACKAGE]
    count = 0
    for found in pkgutil.walk_packages(package.__path__, f"{PACKAGE}."):
        if found.name == f"{PACKAGE}.__main__":
            continue
        importlib.import_module(found.name)
        count += 1
    return count


def main() -> int:
    """Keep the code of every dataclass of toolgen, whether or not bytecode is written."""
    count = _import_all()
    if not save(always=True, only_used=True):
        print(f"toolgen.classcode: cannot write {PATH}", file=sys.stderr)
        return 1
    print(f"toolgen.classcode: {len(_kept)} methods of {count} modules in {PATH}")
    return 0
