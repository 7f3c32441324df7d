"""Human play against the bots: ``table`` (a person's game against three agents, and what the person's
seat may be shown), ``terminal`` (``euchre play``), ``web`` and ``web_page.html`` (``euchre serve``) and
``demo`` (``make demo``: a whole game printed as text)."""
