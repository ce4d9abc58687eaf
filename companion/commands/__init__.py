"""One module per subcommand; see ``companion.cli``."""
