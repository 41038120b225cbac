import subprocess

subprocess.run(["torchrun", "--nproc_per_node=8", "-m", "verl.trainer.sft_trainer",
                "engine.use_mbridge=False"])
