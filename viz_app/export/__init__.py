"""Pictures and files out of the app: PNG/SVG/GIF/MP4/CSV/NPZ, the Export menu, atomic writes."""
