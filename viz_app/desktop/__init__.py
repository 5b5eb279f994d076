"""The app as the desktop knows it: its name, its icon (and the glyphs drawn in the theme's colour), its menu entry."""
