"""Self-play PPO training: config, lockstep self-play collection, PPO, behaviour cloning, the trainer."""
