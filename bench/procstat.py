"""CPU time of a process and all its descendants, from /proc (Linux only).

Used to charge each benchmark path with what it cost the gateway and Triton (whose Python
models run as child stub processes, as uvicorn's workers do) rather than guessing from wall time.
"""

from __future__ import annotations

import os
from pathlib import Path

PROC = Path("/proc")
TICKS_PER_S = os.sysconf("SC_CLK_TCK")
# Fields after the command name, which sits in parentheses and may itself hold spaces.
PPID_FIELD, UTIME_FIELD, STIME_FIELD = 1, 11, 12


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:  # the process ended between listing and reading
        return None
    return text[text.rindex(")") + 2 :].split()


def all_stats() -> dict[int, list[str]]:
    stats = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))) is not None:
            stats[int(entry.name)] = fields
    return stats


def descendants(root: int, stats: dict[int, list[str]]) -> set[int]:
    """`root` and every process below it in the parent tree."""
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[PPID_FIELD]), []).append(pid)
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in stats and pid not in tree:
            tree.add(pid)
            todo += children.get(pid, [])
    return tree


def tree_cpu_s(root: int) -> float:
    """User + system CPU seconds used so far by `root` and its living descendants."""
    stats = all_stats()
    ticks = sum(int(stats[p][UTIME_FIELD]) + int(stats[p][STIME_FIELD]) for p in descendants(root, stats))
    return ticks / TICKS_PER_S


def pin_tree(root: int, cpus: set[int]) -> None:
    """Run every thread of `root` and its descendants on `cpus` only (threads born later inherit)."""
    for pid in descendants(root, all_stats()):
        for task in (PROC / str(pid) / "task").glob("*"):
            try:
                os.sched_setaffinity(int(task.name), cpus)
            except (OSError, ValueError):  # the thread ended meanwhile
                continue


def tree_pss_mib(root: int, command_holds: str = "") -> float:
    """Proportional set size of `root` and its living descendants, MiB: shared memory (the
    Python backend's, mapped by Triton and by every stub) counted once, not once per process.
    With `command_holds`, only the processes whose command line holds it (one model's stub).
    Reading it costs tens of ms of kernel time per call for Triton's tree."""
    total_kib = 0
    for pid in descendants(root, all_stats()):
        try:
            if command_holds and command_holds not in (PROC / str(pid) / "cmdline").read_text(
                errors="replace"
            ):
                continue
            rollup = (PROC / str(pid) / "smaps_rollup").read_text()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        total_kib += next(
            (int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0
        )
    return total_kib / 1024
