python3 -m lab.serve service.port=8080 logging.level=debug
