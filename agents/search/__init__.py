"""Search agents, each a module (its docstring the agent's page; docs/agents.md the measurements):

- ``pimc``: PIMC (``pimc:N``), worlds consistent with the seat's knowledge (``worlds``), each solved by the
  double-dummy solver (``double_dummy``, its compiled twin ``double_dummy_compiled``);
- ``guided``: the network-guided search (``search:N:CKPT``), the network's rollouts on worlds it finds likely;
- ``anchored``: the network as prior, double-dummy values deciding (``anchored:N:CKPT``); ``calls``: the same
  gate at the calls only, with the network's rollouts (``calls:N:CKPT``);
- ``cfr_bidding``: calls from CFR tables, PIMC's card play (``cfr:TABLES.npz``); ``omniscient``: the
  double-dummy ceiling that sees every hand (``omniscient``); ``openspiel_bots``: OpenSpiel's bots
  (``openspiel:KIND:ARG``).
"""

from euchre_env.agents.search.pimc import PIMCAgent

__all__ = ["PIMCAgent"]
