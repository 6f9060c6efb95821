#!/usr/bin/env bash
# The engine for the end-to-end test of a dying engine: it writes one stderr line and its
# process id (to $ASKD_TEST_PID_FILE), then becomes the engine named by $ASKD_TEST_ENGINE.
echo "test engine: starting $ASKD_TEST_ENGINE" >&2
echo "$$" > "$ASKD_TEST_PID_FILE"
exec "$ASKD_TEST_ENGINE" "$@"
