"""Truco table companion.

Data flows one way: perception (vision, speech) -> observations -> table
tracker -> table-log events -> engine -> display, voice, history.  The table
log (see ``../shared/TABLE-LOG.md``) is the contract between every stage.
"""

__version__ = "0.1.0"
