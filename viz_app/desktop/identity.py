"""The application's names as the desktop sees them (kept apart so the shortcut installer needs no window)."""

APP_NAME = "AttentionScope"  # also the X11 WM_CLASS class, so the .desktop file's StartupWMClass (viz_app.desktop.menu_entry)
ORGANIZATION = "AttentionScope"
DESKTOP_FILE = "attention-scope"  # the .desktop file's name and the icon's theme name (Wayland app id)
