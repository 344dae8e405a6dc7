"""solving"""
