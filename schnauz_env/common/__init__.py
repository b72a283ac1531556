"""Machinery shared by every game: option handling and the AEC environment base."""
