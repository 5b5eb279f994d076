"""The main window: layout, menus, actions, and each panel's binding to the state."""
