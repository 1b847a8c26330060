"""The Streamlit dashboard's own code (``app.py`` and ``pages/`` call into it).

Split by concern: :mod:`.session` (typed access to the session state),
:mod:`.state` (data in the session, the URL's query parameters, the shared
page setup and sidebar), :mod:`.sources` (data sources and their caches),
:mod:`.pools` (rule pools and budgets), :mod:`.jobs` (runs and frontier
sweeps in a worker process, watched from the page), :mod:`.worker` (what
that process does), :mod:`.charts`, :mod:`.downloads` (tables, downloads and warnings), :mod:`.text`
(labels and escaping).

Only this subpackage imports Streamlit, and only in the modules that draw or
cache (:mod:`.session`, :mod:`.state`, :mod:`.sources`, :mod:`.pools`, ...); the library core and
the worker process never do.
"""
