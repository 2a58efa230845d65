mod vectors;
