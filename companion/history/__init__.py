"""Match history: every table-log event committed as it happens, searchable and exportable.

``HistoryStore`` opens the database (SQLite by default, any SQLAlchemy URL);
``MatchRecorder`` records a live match (``start``) or continues an interrupted
one (``resume``).  See ``recorder`` for the durability rule.
"""

from companion.history.recorder import MatchRecorder, NothingToResume, ReplayReport
from companion.history.store import HistoryStore, NoSuchMatch, default_db_url

__all__ = ["HistoryStore", "MatchRecorder", "NoSuchMatch", "NothingToResume", "ReplayReport", "default_db_url"]
