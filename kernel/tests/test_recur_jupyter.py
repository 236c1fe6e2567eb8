import unittest

import recur_jupyter


class _Handler:
    def __init__(self):
        self.nodelay = None

    def set_nodelay(self, value):
        self.nodelay = value


class _Connection:
    def __init__(self):
        self.websocket_handler = _Handler()

    def connect(self):
        return "connected"


class NoDelayTest(unittest.TestCase):
    def test_connect_sets_nodelay_before_the_base_connects(self):
        conn = recur_jupyter.with_nodelay(_Connection)()
        self.assertEqual(conn.connect(), "connected")
        self.assertIs(conn.websocket_handler.nodelay, True)

    def test_env_switch(self):
        self.assertTrue(recur_jupyter.nodelay_enabled({}))
        self.assertTrue(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "1"}))
        self.assertFalse(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "0"}))
        self.assertFalse(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "off"}))


if __name__ == "__main__":
    unittest.main()
