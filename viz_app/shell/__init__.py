"""Starting and hosting the app: entry point, QApplication, start-up policies."""
