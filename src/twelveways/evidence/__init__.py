"""The evidence contract, below producers, readers and checks (DESIGN.md, "Evidence contract").

* :mod:`.registry` — every attribute a results file may carry, declared once (type, unit, meaning,
  aliases, the checks that read it); ``docs/evidence.md`` is generated from it.
* :mod:`.kinds` — what a number is (time, latency, op/s, bytes/s, items/s, accuracy, energy) and
  who stated it (publisher, reader, analysis: only a publisher's statement is restated, R3).
* :mod:`.levels` — its replicate levels (the outermost random level counts n).
* :mod:`.machine` — which machine it came from (host, boot, CPU model and count; software apart).
* :mod:`.settings` — measurement settings whose only defaults are the config schema's.

Nothing here imports the checklist, compare or a reader: they import this.
"""
