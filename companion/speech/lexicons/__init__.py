"""Lexicon data files (one JSON per language); see companion.speech.lexicon."""
