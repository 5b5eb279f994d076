"""The Transformer itself, in torch: masks, the attention probe, layers, the model, and the device it runs on."""
