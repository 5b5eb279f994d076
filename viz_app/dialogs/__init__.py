"""Dialogs and help windows: import questions, keyboard sheet, explanations, About."""
