"""One module per subcommand: each adds its parser (`add_parser`) and runs it (`main(args) -> int`)."""
