"""External A2A peers used by the test suite: real implementations, not our own mock."""
