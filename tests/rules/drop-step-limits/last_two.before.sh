python3 -m lab.train \
    data.batch=64 \
    trainer.total_epochs=2 \
    trainer.total_training_steps=50
echo finished
