python3 -m lab.train \
    data.batch=64
echo finished
