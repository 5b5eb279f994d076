"""What a trace or a corpus says about the heads: statistics, alignment, reports, comparisons."""
