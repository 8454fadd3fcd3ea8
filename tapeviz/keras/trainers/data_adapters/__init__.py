"""What ``fit``, ``evaluate`` and ``predict`` accept as data, read batch by batch."""
