"""code"""
