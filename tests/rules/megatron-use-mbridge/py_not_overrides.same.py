from dataclasses import dataclass


@dataclass
class McoreEngineConfig:
    use_mbridge: bool = False

    def __post_init__(self):
        if not self.use_mbridge:
            raise ValueError("use_mbridge must be True")


def legacy(config):
    config.actor_rollout_ref.actor.megatron.use_mbridge = False
    message = "set actor_rollout_ref.actor.megatron.use_mbridge=False to reproduce"
    return {"actor_rollout_ref.actor.megatron.use_mbridge": False}, message, ["echo", "use_mbridge=False"]
