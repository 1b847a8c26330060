"""Imported by the dashboard's fork server before it forks a worker per run: the solvers and their
compiled loops, loaded once (see :mod:`explainer.selection.solvers.warmup`), so no run starts by loading
machine code; and the fork server's end with the dashboard server, however that one ends."""

import gc
import os

from explainer.app.worker import end_with, server_pid
from explainer.selection.solvers.warmup import warm_up

# The fork server ends when the last copy of its "alive" pipe closes, and the workers end with it.
# The server's death closes its copy, but only if no other process holds one: watch the server
# itself as well.  Not with PR_SET_PDEATHSIG: that fires when the parent *thread* ends, and Streamlit
# starts the fork server from a script thread that ends long before the server.
if server_pid() is not None and server_pid() == os.getppid():  # this is the dashboard's fork server
    end_with(server_pid())

try:
    warm_up()
except Exception:
    # only a head start: a worker loads the loops itself, while an error raised here would take
    # the fork server, and with it every run, down
    pass

# every worker forked from here shares these objects: frozen, its collections never walk them (nor
# write to their pages, which stay shared with this process)
gc.freeze()
