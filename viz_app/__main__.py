import sys

from viz_app.shell.launcher import script_main

sys.exit(script_main())
