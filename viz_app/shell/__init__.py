"""Starting and hosting the app: entry point, QApplication, desktop integration, start-up policies."""
