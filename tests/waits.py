"""How long a test waits for work that ends on its own (a job, a step, a process, a page's script run).

Only a bound on a hang: however busy the machine, the work ends well within it, and a test then
checks what the code did, not how soon.
"""

HANG_S = 600.0
