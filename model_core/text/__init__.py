"""Text to token ids and back: the tokenizers, a tokenizer file checked, and tokenising under a time and memory bound."""
