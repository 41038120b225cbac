"""Values a config_path read from an app's source may stand for, other than a path (no libcst needed here)."""

CWD = "\0cwd"  # `os.getcwd()`, `Path.cwd()`: the directory the launch runs in, which a path may start from
