python3 -m labs.async_rl.main \
    trainer.total_epochs=1
