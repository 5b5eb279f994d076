import sys

from viz_app.cli import console_main

sys.exit(console_main())
