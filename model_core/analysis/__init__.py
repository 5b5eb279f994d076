"""What a trace or a corpus says about the heads: statistics, rollout, alignment, reports, comparisons."""
