"""evalplus's (and BigCodeBench's) folder of samples: `FOLDER/TASK_ID/N.py`, the task id
with every `/` written as `_` (`HumanEval_0/3.py` is sample 3 of `HumanEval/0`), each file
a whole solution, prompt included, as `write_directory` writes it and `load_solutions`
reads it in both harnesses.

A task's samples are found by writing its id the way the harness does (`/` -> `_`) and
looking for that folder, never by reading folder names back (`_` -> `/`), so an id that
holds `_` of its own still finds its folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: The suffix of a sample file in a task's folder (the harnesses read no other).
SAMPLE_SUFFIX: Final = ".py"


@dataclass(frozen=True)
class FolderSample:
    """One sample file of the layout: its path, the folder naming its task, and its
    sample number (None when the file is not named `N.py`)."""

    path: Path
    task_folder: str
    sample: int | None

    @property
    def shown(self) -> str:
        """How the file is named in labels and metadata: `HumanEval_0/3.py`."""
        return f"{self.task_folder}/{self.path.name}"


def folder_of(task_id: str) -> str:
    """The folder the harnesses write `task_id`'s samples to."""
    return task_id.replace("/", "_")


def folder_samples(root: Path) -> list[FolderSample]:
    """Every sample file under the task folders of `root` (its non-hidden subfolders),
    by task folder, then by sample number (files not named `N.py` after, by name)."""
    found: list[FolderSample] = []
    for folder in sorted(p for p in root.iterdir() if _visible(p) and p.is_dir()):
        for path in folder.iterdir():
            if _visible(path) and path.suffix == SAMPLE_SUFFIX and path.is_file():
                stem = path.stem
                sample = int(stem) if stem.isascii() and stem.isdigit() else None
                found.append(FolderSample(path, folder.name, sample))
    found.sort(key=lambda s: (s.task_folder, s.sample is None, s.sample or 0, s.path.name))
    return found


def samples_of(task_id: str, samples: list[FolderSample]) -> list[FolderSample]:
    """The samples of `task_id` among `samples`."""
    wanted = folder_of(task_id)
    return [s for s in samples if s.task_folder == wanted]


def _visible(path: Path) -> bool:
    return not path.name.startswith(".")
