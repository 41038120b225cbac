#!/bin/bash
# escaped quotes inside the string: what the inner shell reads is not the text as written, so it is left alone
sh -c "python3 -m verl.trainer.main_ppo critic.megatron.use_mbridge=\"False\""
