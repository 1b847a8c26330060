"""Benchmark: the paper's Table 3 and Figure 4, and a synthetic scale test.

``explainer bench`` runs every selected algorithm ``--runs`` times on each of
the paper's data sets, at the paper's depths and budgets (read from the
paper's results CSV, never typed in here), and writes a Table 3 look-alike
(markdown and CSV) with extra columns, the per-run numbers and, per data set,
the QGA fitness-evolution figure.

* Every run is an independent task ``(data set, algorithm, run k)``.  Its seed
  comes from ``SeedSequence([seed, crc32(data set), k])``, so any subset of
  runs re-run later gives the same numbers, bit for bit.
* Tasks run on local cores with joblib (``--jobs``) or on a Dask cluster
  (``--scheduler tcp://host:port``; needs the optional ``distributed``).
* Each process builds the rule pool of a data set once (cached) with a fixed
  pool seed, from the data encoded as the paper did (``--encoding paper``).
* The exact solver is deterministic: it runs once per data set and its
  optimum gives every algorithm's gap.

``explainer bench --synthetic`` times QGA and greedy on synthetic selection
problems of growing size (N rows x M rules), each in a fresh subprocess that
reports its wall time and peak memory.  QGA runs there with a time limit of
``SYNTHETIC_PARAMS["qga"]["time_limit"]`` seconds (its "auto" population
already shrinks on huge instances; the limit ends the largest run with the best
selection so far, status "stopped"); ``--param qga.time_limit=null`` lifts it.
"""

from __future__ import annotations

from explainer.bench.command import add_arguments, main
from explainer.bench.execution import Progress, _connect, execute
from explainer.bench.figures import fitness_figure, write_figures
from explainer.bench.paper import (
    DEFAULT_ALGORITHMS,
    DETERMINISTIC,
    ENCODINGS,
    PAPER_ALGORITHMS,
    PAPER_ENCODING,
    PAPER_TABLE,
    TABLE_LABELS,
    encoding_kwargs,
    paper_settings,
    paper_table,
    run_seed,
    scale_budgets,
)
from explainer.bench.runner import Task, clear_cache, make_tasks, run_task, task_problem
from explainer.bench.synthetic import (
    SYNTHETIC_PARAMS,
    parse_sizes,
    run_synthetic_size,
    synthetic_child,
    synthetic_problem,
)
from explainer.bench.writers import (
    RUN_COLUMNS,
    TABLE_COLUMNS,
    machine_info,
    markdown_table,
    provenance,
    summarise,
    write_csv,
)

__all__ = [
    "DEFAULT_ALGORITHMS", "DETERMINISTIC", "ENCODINGS", "PAPER_ALGORITHMS", "PAPER_ENCODING", "PAPER_TABLE", "RUN_COLUMNS",
    "SYNTHETIC_PARAMS", "TABLE_COLUMNS", "TABLE_LABELS", "Progress", "Task", "add_arguments", "clear_cache",
    "encoding_kwargs", "execute", "fitness_figure", "machine_info", "main", "make_tasks", "markdown_table",
    "paper_settings", "paper_table", "parse_sizes", "provenance", "run_seed", "run_synthetic_size",
    "run_task", "scale_budgets", "summarise", "synthetic_child", "synthetic_problem", "task_problem",
    "write_csv", "write_figures", "_connect",
]
