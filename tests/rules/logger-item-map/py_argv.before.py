import subprocess


def run() -> None:
    subprocess.run(["python3", "-m", "mylib.train", "trainer.logger=['console','legacy_tb']", "trainer.run=1"], check=True)
