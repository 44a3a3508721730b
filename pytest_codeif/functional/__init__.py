"""functional"""
