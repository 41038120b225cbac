import subprocess

subprocess.run(["python3", "-m", "labs.async_rl.main", "trainer.total_epochs=1"], check=True)
subprocess.run(["torchrun", "--nproc_per_node=2", "labs/async_rl/main.py", "trainer.total_epochs=1"], check=True)
