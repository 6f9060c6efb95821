#!/usr/bin/env bash
# The engine for the end-to-end test of a resized panel: it becomes the engine named by
# $ASKD_TEST_ENGINE, with every byte the extension writes to it copied to
# $ASKD_TEST_LOG.requests and every byte it answers copied to $ASKD_TEST_LOG.replies (JSON-RPC
# messages in Content-Length framing, as they went).
exec "$ASKD_TEST_ENGINE" "$@" < <(tee "$ASKD_TEST_LOG.requests") > >(tee "$ASKD_TEST_LOG.replies")
