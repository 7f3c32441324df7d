"""What a network may be, without torch: the limits a config and a checkpoint are held to, and the precisions its
products may compute in. Apart from :mod:`.network` so that a config is checked before torch is imported (a bad
value in ``euchre train --set`` is one line in well under a second)."""

# The largest network a config may ask for and a checkpoint may describe: 8 layers of 2,048 are 134 MB of weights a
# network, held by the actor, the critic, Adam's two moments of each and every league snapshot.
MAX_LAYERS = 8
MAX_WIDTH = 2048
PRECISIONS = ("float32", "bfloat16")  # what the dense layers' products may compute in (matmul_precision)
