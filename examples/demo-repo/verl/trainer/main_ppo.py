"""Stand-in for verl's PPO entry point; the demo scripts launch it but nothing runs it."""


def main() -> None:
    raise SystemExit("demo-repo: this is a stub, not a trainer")


if __name__ == "__main__":
    main()
