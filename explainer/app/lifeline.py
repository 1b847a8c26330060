"""How the dashboard's fork server and workers end with the Streamlit server, however that one ends.

Standard library only: the fork server runs this file first, before it imports the project
(whose libraries take seconds to load), so that a server killed meanwhile does not leave it
loading them.  :func:`.jobs.mp_context` puts the server's pid in the environment
(:data:`SERVER_PID_ENV`); run as the fork server's ``__main__`` this file then watches that pid
(:func:`end_with`).  Not with PR_SET_PDEATHSIG: that fires when the parent *thread* ends, and
Streamlit starts the fork server from a thread that ends long before the server.  The workers
watch it too (:func:`.worker.die_with_parent`).
"""

from __future__ import annotations

import os
import select
import threading
import time

#: The environment variable that tells the fork server, and the workers it forks, the dashboard server's pid.
SERVER_PID_ENV = "EXPLAINER_SERVER_PID"
#: Where there is no pidfd, how often a process checks that the one it ends with is still there.
PARENT_POLL_S = 0.5


def server_pid() -> int | None:
    """The dashboard server's pid, as :func:`.jobs.mp_context` told its fork server (None elsewhere)."""
    value = os.environ.get(SERVER_PID_ENV, "")
    return int(value) if value.isdigit() else None


def end_with(pid: int) -> None:
    """End this process (``os._exit``) as soon as process ``pid`` has ended, however it ended.

    A daemon thread waits on a pidfd of ``pid`` (Linux): the kernel wakes it the moment ``pid``
    exits, zombie or not.  Where there is no pidfd it checks every :data:`PARENT_POLL_S`: for the
    parent, whether this process has been handed to another; for any other pid, whether it exists.
    """
    fd: int | None
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:  # already gone
        os._exit(1)
    except (AttributeError, OSError):  # no pidfd here
        fd = None

    def wait_on_pidfd(fd: int) -> None:
        select.select([fd], [], [])
        os._exit(1)

    def poll():
        parent = pid == os.getppid()
        while (os.getppid() == pid) if parent else _exists(pid):
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    if fd is None:
        threading.Thread(target=poll, name="explainer-end-with", daemon=True).start()
    else:
        threading.Thread(target=wait_on_pidfd, args=(fd,), name="explainer-end-with", daemon=True).start()


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # there, but not ours to signal
        return True
    return True


# Run as the main module of a fork server that :func:`.jobs.mp_context` started (it sets the pid first).
if __name__ == "__mp_main__" and (_server := server_pid()) is not None:
    if os.getppid() != _server:  # handed to another parent: the server died while this one started
        os._exit(1)
    end_with(_server)
