"""Imported by the dashboard's fork server before it forks a worker per run: the solvers and their
compiled loops, loaded once (see :mod:`explainer.selection.solvers.warmup`), so no run starts by loading
machine code.  (How the fork server ends with the dashboard server: :mod:`.lifeline`, which it runs first.)"""

import gc

from explainer.selection.solvers.warmup import compile_loops

try:
    compile_loops()
except Exception:
    # only a head start: a worker loads the loops itself, while an error raised here would take
    # the fork server, and with it every run, down
    pass

# every worker forked from here shares these objects: frozen, its collections never walk them (nor
# write to their pages, which stay shared with this process)
gc.freeze()
