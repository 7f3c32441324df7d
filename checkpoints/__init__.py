"""The published checkpoints and CFR tables. Those named in pyproject.toml's package-data install as the data
package ``euchre_env.checkpoints``, so that the agent spec ``knock.pt`` finds this folder's file without a clone
(:mod:`euchre_env.published`)."""
