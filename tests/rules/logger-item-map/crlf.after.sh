python3 -m mylib.train \
    trainer.logger=[console,tensorboard] \
    trainer.run=1
