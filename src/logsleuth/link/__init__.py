"""The linking stage: from findings and actions to the causal graph of one session.

    runs        every tool call as a run of a target, with its role and status
    causes      a failure named by its telling line where no pattern names it
    episodes    which failures of each output are the story, grouped into episodes
    constraints the request's rules against what the session did
    roles       what each category means for the story (categories.yaml `role`)
    resolution  what fixed each failure (re-runs), noise, outcome from the goal, root cause
    catch22     failures that trap each other
    pivots      changes of approach found from what was done
    chain       `link()`: episodes, the chain, pivots, the graph

Imports run one way: chain -> episodes -> resolution/catch22/causes/constraints -> runs -> actions, model.
"""

from logsleuth.link.chain import action_label, link, to_networkx
from logsleuth.link.pivots import find_pivots

__all__ = ["action_label", "find_pivots", "link", "to_networkx"]
