"""taskfile"""
