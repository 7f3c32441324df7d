"""The trainer's YAML configs. They install as the data package ``euchre_env.configs``, so that ``euchre train
--config knock`` finds ``knock.yaml`` without a clone (:mod:`euchre_env.published`)."""
