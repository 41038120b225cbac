python3 -m mylib.async_rl.main \
    trainer.total_epochs=1
